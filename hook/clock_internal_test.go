package hook

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestHandlerClockIsUTC holds what the session file and the journal are
// written with: times in UTC, which a later process reads back without
// loading the local zone's file; a test's own clock is kept as given.
func TestHandlerClockIsUTC(t *testing.T) {
	assert.Equal(t, time.UTC, (&Handler{}).now().Location())
	berlin := time.FixedZone("CET", 3600)
	given := time.Date(2026, 12, 2, 9, 0, 0, 0, berlin)
	assert.Equal(t, given, (&Handler{Now: func() time.Time { return given }}).now())
}
