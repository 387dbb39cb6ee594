package engine

// adaptiveStep is how much one adaptive event moves a weight, before renormalisation.
const adaptiveStep = 0.02

// alarmOn are the levels at which each signal (F, L, Q, B, C) starts alarming: F above the
// healthy limit of 10%, L at a P99 2.5 times the baseline, Q and B half used, C not CLOSED.
// alarmOff are the levels below which the alarm ends. The gap (hysteresis) keeps a signal that
// hovers around its level, as L does with an ordinary latency spread (a P99 about twice the
// median gives L near 0.33), from counting a string of false alarms.
var (
	alarmOn  = [5]float64{0.10, 0.50, 0.50, 0.50, 0.50}
	alarmOff = [5]float64{0.05, 0.25, 0.25, 0.25, 0.25}
)

// adaptiveWeights is the self-tuning rule, evaluated once per window slice on the signals of
// that moment. A failure spike starts when F reaches the circuit's failure threshold. At the
// start of a spike, every signal already alarming (it crossed its alarm level in an earlier
// slice: it warned ahead of the spike) gains adaptiveStep. When a signal's alarm ends (it falls
// below its alarmOff level) without a spike having started during it (a false alarm), it loses
// adaptiveStep. After any change the
// weights are clamped to [AdaptiveMinWeight, AdaptiveMaxWeight] and renormalised to sum 1.
// Not safe for concurrent use.
type adaptiveWeights struct {
	spikeLevel float64
	spiking    bool
	alarmed    [5]bool
	confirmed  [5]bool // a spike started during this alarm (or the alarm began during one)
}

// reset forgets every alarm episode.
func (a *adaptiveWeights) reset() {
	*a = adaptiveWeights{spikeLevel: a.spikeLevel}
}

// step applies the rule to signals s and weights w, and reports whether w changed.
func (a *adaptiveWeights) step(s Signals, w *Weights) bool {
	v := s.Array()
	wa := w.Array()
	spike := v[0] >= a.spikeLevel
	onset := spike && !a.spiking
	a.spiking = spike
	changed := false
	for i := range v {
		on := v[i] >= alarmOn[i]
		off := v[i] < alarmOff[i]
		switch {
		case a.alarmed[i] && onset && !a.confirmed[i]:
			wa[i] += adaptiveStep
			a.confirmed[i] = true
			changed = true
		case a.alarmed[i] && off:
			if !a.confirmed[i] {
				wa[i] -= adaptiveStep
				changed = true
			}
			a.alarmed[i], a.confirmed[i] = false, false
		case !a.alarmed[i] && on:
			a.alarmed[i], a.confirmed[i] = true, spike
		}
	}
	if changed {
		*w = bounded(WeightsFrom(wa), AdaptiveMinWeight, AdaptiveMaxWeight)
	}
	return changed
}
