package main

import (
	"fmt"
	"time"
)

func main() {
	for i := 0; i < 3; i++ {
		fmt.Println("tick", i)
	}
	time.Sleep(time.Millisecond)
}
