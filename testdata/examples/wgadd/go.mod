module example.com/wgadd

go 1.22
