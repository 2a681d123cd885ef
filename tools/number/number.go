// Package number turns the values the catalogues type as `number` (any
// JSON number, fractions included: Symphony's and Adjutant's Zod schemas
// say z.number()) into the whole numbers baton stores. Each field takes the
// rounding that keeps its meaning: a limit of 2.5 results returns 2, a
// threshold of 72.5 over whole scores admits 73, a priority of 1.6 is 2.
package number

import "math"

// Whole is f rounded to the nearest whole number, halves away from zero:
// for values whole by nature (priorities, counts, milliseconds, percents).
func Whole(f float64) int { return clamp(math.Round(f)) }

// AtMost is the largest whole number not above f: for limits and offsets,
// where "at most 2.5" means at most 2.
func AtMost(f float64) int { return clamp(math.Floor(f)) }

// AtLeast is the smallest whole number not below f: for thresholds over
// whole values, where "at least 72.5" means at least 73.
func AtLeast(f float64) int { return clamp(math.Ceil(f)) }

// clamp keeps a whole float inside int, so no input wraps around; the
// schemas bound every field far inside it anyway.
func clamp(f float64) int {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int(f)
}
