package termsafe_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/internal/termsafe"
)

func TestString(t *testing.T) {
	cases := map[string]string{
		"plain-name":             "plain-name",
		"中文 name\twith tab\n":    "中文 name\twith tab\n",
		"evil\x1b[31mred\x1b[0m": `evil\u001b[31mred\u001b[0m`,
		"title\x1b]0;pwned\x07":  `title\u001b]0;pwned\u0007`,
		"over\rprint":            `over\u000dprint`,
		"c1 \u009b31m":           `c1 \u009b31m`,
		"del\x7f":                `del\u007f`,
		"txt.exe\u202egnp.":      `txt.exe\u202egnp.`,
		"bad \xff utf8":          "bad \xff utf8",
	}
	for in, want := range cases {
		assert.Equal(t, want, termsafe.String(in), "%q", in)
	}
}

// Characters split across writes are escaped whole, and JSON that passes
// through stays valid with the same meaning.
func TestWriter(t *testing.T) {
	var out bytes.Buffer
	w := termsafe.NewWriter(&out)
	in := []byte("a\u009bb\u202ec 中\x1b")
	for i := range in { // one byte at a time: every character split
		n, err := w.Write(in[i : i+1])
		require.NoError(t, err)
		assert.Equal(t, 1, n)
	}
	require.NoError(t, w.Flush())
	assert.Equal(t, `a\u009bb\u202ec 中\u001b`, out.String())

	doc, err := json.Marshal(map[string]string{"name": "x\u009b\u202e\x7fy"})
	require.NoError(t, err)
	out.Reset()
	w = termsafe.NewWriter(&out)
	_, err = w.Write(doc)
	require.NoError(t, err)
	require.NoError(t, w.Flush())
	var back map[string]string
	require.NoError(t, json.Unmarshal(out.Bytes(), &back))
	assert.Equal(t, "x\u009b\u202e\x7fy", back["name"])
	assert.NotContains(t, out.String(), "\u009b")
}
