#!/bin/bash
# purpose: fork/exit and exec storms: task structs, stacks and page tables against user pages
. "$(dirname "$0")/lib.sh"
secs=${1:-60}
ng --fork 2 --vfork 1 --clone 1 --exec 1 --timeout "${secs}s"
