package number

import (
	"math"
	"testing"
)

// TestPoint18Rounding: each kind of catalogue number keeps its meaning as
// a whole number, and no value wraps around.
func TestPoint18Rounding(t *testing.T) {
	for _, tc := range []struct {
		f                      float64
		whole, atMost, atLeast int
	}{
		{2, 2, 2, 2},
		{2.5, 3, 2, 3},
		{2.4999, 2, 2, 3},
		{0.5, 1, 0, 1},
		{-0.5, -1, -1, 0},
		{72.0001, 72, 72, 73},
		{1e300, math.MaxInt64, math.MaxInt64, math.MaxInt64},
		{-1e300, math.MinInt64, math.MinInt64, math.MinInt64},
		{math.NaN(), 0, 0, 0},
	} {
		if got := Whole(tc.f); got != tc.whole {
			t.Errorf("Whole(%v) = %d, want %d", tc.f, got, tc.whole)
		}
		if got := AtMost(tc.f); got != tc.atMost {
			t.Errorf("AtMost(%v) = %d, want %d", tc.f, got, tc.atMost)
		}
		if got := AtLeast(tc.f); got != tc.atLeast {
			t.Errorf("AtLeast(%v) = %d, want %d", tc.f, got, tc.atLeast)
		}
	}
}
