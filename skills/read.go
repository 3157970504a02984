package skills

import (
	"errors"
	"fmt"

	"github.com/skillroute/skillroute/store"
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
	data, err := store.ReadRegular(path, MaxSkillBytes)
	if errors.Is(err, store.ErrNotRegular) || errors.Is(err, store.ErrTooLarge) {
		return nil, fmt.Errorf("%w; left out", err)
	}
	return data, err
}
