module example.com/realpkgs

go 1.26.0

require golang.org/x/sync v0.24.0
