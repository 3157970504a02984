package table_test

import (
	"testing"

	"github.com/skillroute/skillroute/internal/table"
	"github.com/stretchr/testify/assert"
)

func TestStrings(t *testing.T) {
	tab := table.New([]string{"api", "cache", "缓存", "部署"})
	assert.Equal(t, 4, tab.Len())
	assert.Equal(t, "缓存", tab.At(2))
	for i, s := range tab.All() {
		assert.Equal(t, i, tab.Find(s))
	}
	assert.Equal(t, -1, tab.Find("cach"))
	assert.Equal(t, -1, tab.Find("zzz"))
	var empty table.Strings
	assert.Equal(t, 0, empty.Len())
	assert.Equal(t, -1, empty.Find("x"))
	assert.Equal(t, -1, table.New(nil).Find(""))
}
