module example.com/fidelity

go 1.22
