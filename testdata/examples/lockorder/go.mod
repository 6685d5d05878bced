module example.com/lockorder

go 1.22
