module example.com/stress

go 1.26.0

require github.com/interleave-dev/interleave v0.0.0

replace github.com/interleave-dev/interleave => ../..
