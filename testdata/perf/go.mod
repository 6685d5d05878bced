module example.com/perf

go 1.26.0
