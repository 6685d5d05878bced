module github.com/interleave-dev/interleave

go 1.26
