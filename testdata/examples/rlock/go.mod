module example.com/rlock

go 1.22
