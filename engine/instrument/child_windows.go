package instrument

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"unsafe"
)

// dieWithParent has a canceled context end the child's whole process tree. Windows has no
// process groups to signal: killTree walks the tree by parent process id, as taskkill /T
// does. (Windows does not kill the child when the tool dies, as Linux does.)
func dieWithParent(cmd *exec.Cmd) {
	cmd.Cancel = func() error { return killTree(cmd) }
}

// killTree ends cmd's process, then its descendants, found in a snapshot of the system's
// processes (CreateToolhelp32Snapshot) by their parent's id: the process first, so that it
// starts no more.
func killTree(cmd *exec.Cmd) error {
	tree := descendants(uint32(cmd.Process.Pid))
	err := cmd.Process.Kill()
	if errors.Is(err, os.ErrProcessDone) {
		err = nil
	}
	for _, pid := range tree {
		terminate(pid)
	}
	if err != nil {
		return fmt.Errorf("kill process %d: %w", cmd.Process.Pid, err)
	}
	return nil
}

// descendants returns the ids of root's descendants, parents before their children.
func descendants(root uint32) []uint32 {
	snap, err := syscall.CreateToolhelp32Snapshot(syscall.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		return nil
	}
	defer syscall.CloseHandle(snap)
	children := map[uint32][]uint32{}
	var e syscall.ProcessEntry32
	e.Size = uint32(unsafe.Sizeof(e))
	for err = syscall.Process32First(snap, &e); err == nil; err = syscall.Process32Next(snap, &e) {
		if e.ProcessID != e.ParentProcessID {
			children[e.ParentProcessID] = append(children[e.ParentProcessID], e.ProcessID)
		}
	}
	var out []uint32
	seen := map[uint32]bool{root: true}
	for queue := []uint32{root}; len(queue) > 0; queue = queue[1:] {
		for _, c := range children[queue[0]] {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
				queue = append(queue, c)
			}
		}
	}
	return out
}

// terminate ends the process pid, if it can be opened.
func terminate(pid uint32) {
	h, err := syscall.OpenProcess(syscall.PROCESS_TERMINATE, false, pid)
	if err != nil {
		return
	}
	syscall.TerminateProcess(h, 1)
	syscall.CloseHandle(h)
}

// processAlive reports whether the process pid exists: it can be opened and has not exited.
func processAlive(pid int) bool {
	const processQueryLimitedInformation = 0x1000
	const stillActive = 259
	h, err := syscall.OpenProcess(processQueryLimitedInformation, false, uint32(pid))
	if err != nil {
		// ERROR_ACCESS_DENIED: it exists, run by someone else.
		return errors.Is(err, syscall.ERROR_ACCESS_DENIED)
	}
	defer syscall.CloseHandle(h)
	var code uint32
	if err := syscall.GetExitCodeProcess(h, &code); err != nil {
		return true
	}
	return code == stillActive
}
