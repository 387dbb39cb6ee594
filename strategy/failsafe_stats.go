package strategy

import (
	"math"
	"slices"
)

// The windows of failsafe-go's adaptive limiter and prioritizer (internal/util and priority
// @ 5759a5e6), for the failsafe strategy.

// movingMedian is failsafe-go's MovingMedian: the value itself until the ring is nearly full,
// then the median of the whole ring.
type movingMedian struct {
	values, sorted []float64
	index, size    int
}

// add adds x and returns the median.
func (m *movingMedian) add(x float64) float64 {
	m.values[m.index] = x
	m.index = (m.index + 1) % len(m.values)
	if m.size < len(m.values)-1 {
		m.size++
		return x
	}
	copy(m.sorted, m.values)
	slices.Sort(m.sorted)
	return m.sorted[len(m.sorted)/2]
}

// correlation is failsafe-go's CorrelationWindow: Pearson's correlation of the last n (x, y)
// pairs (a zero value is not added: MovingSum ignores it), and y's coefficient of variation.
type correlation struct {
	x, y  movingSum
	sumXY float64
}

func newCorrelation(n int) correlation {
	return correlation{x: movingSum{samples: make([]float64, n)}, y: movingSum{samples: make([]float64, n)}}
}

// add adds a pair; it returns the correlation and y's variation (0, 0 while warming up or when
// either varies by under 1%).
func (w *correlation) add(x, y float64) (corr, cvY float64) {
	if math.IsInf(x, 0) || math.IsInf(y, 0) {
		return 0, 0
	}
	oldX, full := w.x.add(x)
	oldY, _ := w.y.add(y)
	cvX, meanX, varX := w.x.cv()
	cvY, meanY, varY := w.y.cv()
	if full {
		w.sumXY -= oldX * oldY
	}
	w.sumXY += x * y
	if math.IsNaN(cvX) || math.IsNaN(cvY) || w.x.size < 10 {
		return 0, 0
	}
	if cvX < 0.01 || cvY < 0.01 {
		return 0, cvY
	}
	cov := w.sumXY/float64(w.x.size) - meanX*meanY
	return cov / (math.Sqrt(varX) * math.Sqrt(varY)), cvY
}

// movingSum is failsafe-go's MovingSum: a ring of the last samples with their sum and sum of
// squares.
type movingSum struct {
	samples     []float64
	size, index int
	sum, sumSq  float64
}

// add adds v (a zero is ignored) and returns the sample it replaced, when the ring was full.
func (r *movingSum) add(v float64) (old float64, full bool) {
	if v == 0 {
		return 0, false
	}
	if r.size == len(r.samples) {
		full, old = true, r.samples[r.index]
		r.sum -= old
		r.sumSq -= old * old
	} else {
		r.size++
	}
	r.samples[r.index] = v
	r.sum += v
	r.sumSq += v * v
	r.index = (r.index + 1) % len(r.samples)
	return old, full
}

// cv returns the coefficient of variation, mean and variance (NaN with fewer than 2 samples,
// a negative variance or a zero mean).
func (r *movingSum) cv() (cv, mean, variance float64) {
	if r.size < 2 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	mean = r.sum / float64(r.size)
	variance = r.sumSq/float64(r.size) - mean*mean
	if variance < 0 || mean == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	return math.Sqrt(variance) / mean, mean, variance
}

// levelTracker is failsafe-go's windowedLevelTracker: the last levels recorded, counted per level
// (in 16 bits: 3 KB a client instead of 12, a window holds at most 65,535 levels).
type levelTracker struct {
	window []uint16
	counts [500]uint16
	head   int
	filled bool
}

// record adds a level (0..499).
func (t *levelTracker) record(level int) {
	if t.filled {
		t.counts[t.window[t.head]]--
	}
	t.window[t.head] = uint16(level)
	t.counts[level]++
	t.head++
	if t.head == len(t.window) {
		t.head, t.filled = 0, true
	}
}

// level returns the level at quantile q of the recorded levels (0 with none).
func (t *levelTracker) level(q float64) int {
	n := t.head
	if t.filled {
		n = len(t.window)
	}
	if n == 0 {
		return 0
	}
	target := max(1, int(math.Ceil(float64(n)*q)))
	counted := 0
	for l, c := range t.counts {
		if counted += int(c); counted >= target {
			return l
		}
	}
	return 0
}
