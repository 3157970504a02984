package skills

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// MaxSkillBytes bounds one SKILL.md. The longest built-in skill is under
// 5 KB and a long published playbook a few tens of KB; a megabyte is far
// past any, while a symlink to /dev/zero or a generated file would
// otherwise grow the compile without bound.
const MaxSkillBytes = 1 << 20

// ReadFile reads a skill file found in a folder the user (or a cloned
// repository) controls. Only a regular file is read, and at most
// MaxSkillBytes of it: a FIFO, a device or a file over the bound is an
// error naming the file, so that the skill is left out with a warning
// instead of hanging or exhausting the compile. The open does not block,
// so a FIFO cannot stall it before the check.
func ReadFile(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file (%v), left out", path, info.Mode().Type())
	}
	if info.Size() > MaxSkillBytes {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d a skill file may have; left out", path, info.Size(), MaxSkillBytes)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxSkillBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > MaxSkillBytes {
		return nil, fmt.Errorf("%s: more than the %d bytes a skill file may have; left out", path, MaxSkillBytes)
	}
	return data, nil
}
