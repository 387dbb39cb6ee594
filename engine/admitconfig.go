package engine

// AdmitConfig holds the thresholds by which admission (Config.AdmitOriginals) reads, once per
// window slice, whether the service queues and so turns the pacer on: how slow even the fastest
// success must be, what share of refusals or failures makes slow successes a queue rather
// than a slow dependency, and how the count of successes the pace follows is smoothed. A
// service whose latency spreads wide, or that refuses a few requests in normal operation,
// calibrates them. A zero field takes its default (DefaultAdmit), so a Config written without
// it admits as before. docs/engine.md gives the measurements behind each default.
type AdmitConfig struct {
	// Slow is the slowdown S (the latency's excess over the baseline in units of three
	// baselines, within [0, 1]) at or above which a success says the service queues: even the
	// fastest success of a slice that slow turns the pacer on, with refusals, failures or a
	// CRITICAL score. 0.5 is 2.5 times the baseline (default 0.5).
	Slow float64
	// Refused is the share of a slice's outcomes answered as refusals (RecordRefused: a 503 of a
	// full queue, a 429) at or above which the service refuses: the pacer turns on, slow
	// successes or not (default 0.05).
	Refused float64
	// Failed is the share of a slice's outcomes that failed, of any kind, at or above which slow
	// successes say the service queues rather than a dependency is slow (default 0.25).
	Failed float64
	// Smooth is the weight of each slice in the smoothed count of successes a slice, the rate
	// the pace follows while the service queues: 1 follows the last slice alone (default 0.5).
	Smooth float64
}

// DefaultAdmit returns admission's defaults.
func DefaultAdmit() AdmitConfig {
	return AdmitConfig{Slow: 0.5, Refused: 0.05, Failed: 0.25, Smooth: 0.5}
}

// resolved returns c with each zero field set to its default.
func (c AdmitConfig) resolved() AdmitConfig {
	d := DefaultAdmit()
	for _, f := range []struct {
		v   *float64
		def float64
	}{
		{&c.Slow, d.Slow}, {&c.Refused, d.Refused}, {&c.Failed, d.Failed}, {&c.Smooth, d.Smooth},
	} {
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	return c
}

// validate adds an error for each invalid field of c: every field within [0, 1].
func (c AdmitConfig) validate(errs *ConfigError) {
	errs.share("Admit.Slow", c.Slow)
	errs.share("Admit.Refused", c.Refused)
	errs.share("Admit.Failed", c.Failed)
	errs.share("Admit.Smooth", c.Smooth)
}
