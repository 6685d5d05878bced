module example.com/doublecheck

go 1.22
