module example.com/horde

go 1.22
