package membot

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/baton-dev/baton"
)

// membot's durations (membot-operations.md §6: refresh_frequency,
// prune's before): a whole number and one unit, s, m, h or d, in either
// case ("90m", "7D").
var durationRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([0-9]{1,12})([smhdSMHD])$`) })

// maxDuration bounds a duration: a century is past any schedule or
// cutoff a store keeps, and keeps the arithmetic far from overflow.
const maxDuration = 100 * 365 * 24 * time.Hour

// parseDuration reads a membot duration; field names the input for the
// error, which is ERR_INVALID_INPUT (membot's input_error).
func parseDuration(field, s string) (time.Duration, error) {
	m := durationRE().FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return 0, baton.Errorf(baton.ErrInvalidInput, "%s %q is not a duration", field, s).
			WithDetails("field", field).
			WithHint("give a whole number and a unit: s, m, h or d, e.g. 30m, 6h or 7d")
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	unit := map[string]time.Duration{"s": time.Second, "m": time.Minute, "h": time.Hour, "d": 24 * time.Hour}[strings.ToLower(m[2])]
	if n == 0 || n > int64(maxDuration/unit) {
		return 0, baton.Errorf(baton.ErrInvalidInput, "%s %q is out of range: it must be above zero and at most 100 years", field, s).
			WithDetails("field", field).
			WithHint("give a duration between 1s and 36500d")
	}
	return time.Duration(n) * unit, nil
}

// parseFrequency is refresh_frequency in seconds; "" means none (0).
func parseFrequency(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	d, err := parseDuration("refresh_frequency", s)
	if err != nil {
		return 0, err
	}
	return int64(d / time.Second), nil
}

// cutoffLayouts are the ISO-8601 spellings prune's before accepts; one
// without a zone is UTC.
var cutoffLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04", "2006-01-02"}

// parseCutoff reads prune's before: a duration back from now, or an
// ISO-8601 instant.
func parseCutoff(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if durationRE().MatchString(s) {
		d, err := parseDuration("before", s)
		if err != nil {
			return time.Time{}, err
		}
		return now.Add(-d), nil
	}
	for _, l := range cutoffLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, baton.Errorf(baton.ErrInvalidInput, "before %q is neither a duration nor an ISO-8601 timestamp", s).
		WithDetails("field", "before").
		WithHint("give a duration back from now such as 30d or 12h, or a timestamp such as 2026-05-01T00:00:00Z")
}
