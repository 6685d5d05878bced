module races

go 1.22
