module example.com/closedchan

go 1.22
