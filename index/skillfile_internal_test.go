package index

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSkillTableDamaged protects reads of a damaged file's skill table,
// whose offsets loading does not check: a name out of order reads as "",
// a list out of order or past its column as none; never a panic.
func TestSkillTableDamaged(t *testing.T) {
	tab := NewSkillTable([]SkillInfo{
		{Name: "a", Description: "first", Enhances: []string{"b"}},
		{Name: "b", Description: "second", Enhances: []string{"a"}, Conflicts: []string{"a"}},
	})
	tab.names.Off[1] = 100 // past the blob
	tab.descs.Off[1], tab.descs.Off[2] = tab.descs.Off[2], tab.descs.Off[1]
	tab.enhStart[1] = 9 // past the column
	tab.conStart[1], tab.conStart[2] = 1, 0
	assert.Equal(t, "", tab.Name(0))
	assert.Equal(t, "", tab.Name(1))
	assert.Equal(t, "", tab.Description(1))
	assert.Nil(t, tab.Enhances(0))
	assert.Nil(t, tab.Enhances(1))
	assert.Nil(t, tab.Conflicts(1))
	assert.NotPanics(t, func() { tab.Info(0); tab.Info(1) })
}
