module sctbench

go 1.22
