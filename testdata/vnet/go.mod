module example.com/vnet

go 1.22
