package tune

import (
	"context"
	"slices"

	"gonum.org/v1/gonum/optimize"
)

// bestOf returns the best candidate of generation gen (s.mu held) that was not rejected on
// the screening seeds nor is behind the default on a scenario (behindDefault), the first in the
// unit cube's order among equals (the IDs follow the workers' schedule, the positions the
// optimizer's seeded draws); ok is false for none.
func (s *search) bestOf(gen int) (Candidate, bool) {
	var best Candidate
	ok := false
	for _, c := range s.cands {
		if c.Generation != gen || c.Rejected || s.behindDefault(c) {
			continue
		}
		if !ok || c.Score.Value > best.Score.Value || c.Score.Value == best.Score.Value && slices.Compare(c.X, best.X) < 0 {
			best, ok = c, true
		}
	}
	return best, ok
}

// behindDefault reports whether c, with several scenarios tuned together, scores below the
// default on one of them on the training seeds by more than the seeds' noise (Noise): it is
// never kept, whatever its mean (the search's score already takes BehindPenalty for it, which
// ranks it for CMA-ES). A drop within the noise is not evidence of a loss; the held-out seeds,
// where every scenario must hold without any tolerance (Result.Behind), decide.
func (s *search) behindDefault(c Candidate) bool {
	if len(c.Score.Scenarios) < 2 {
		return false
	}
	for i, ss := range c.Score.Scenarios {
		if d := s.defTrain.Scenarios[i]; ss.Value() < d.Value()-Noise(ss, d) {
			return true
		}
	}
	return false
}

// recorder ends each generation (optimize.MajorIteration): a best candidate that beats the
// one kept is checked on the held-out seeds and kept; then the search stops once the
// generations are done, it has converged or its time is up. When ctx is done it stops at once,
// keeping the candidate kept last.
type recorder struct {
	s   *search
	ctx context.Context
}

func (recorder) Init() error { return nil }

func (r recorder) Record(_ *optimize.Location, op optimize.Operation, _ *optimize.Stats) error {
	s := r.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.ctx.Err() != nil {
		s.stop, s.stopping = "interrupted", true
		return errStop
	}
	if s.stopping {
		return errStop
	}
	if op != optimize.MajorIteration || s.doneInGen[s.gens] < s.pop {
		return nil
	}
	if c, ok := s.bestOf(s.gens); ok && c.Score.Value > s.checked.Score.Value {
		if err := s.check(c); err != nil {
			s.stop, s.stopping = "interrupted", true
			return errStop
		}
	}
	best := s.checked.Score.Value
	s.gens++
	s.history = append(s.history, best)
	if s.opts.Progress != nil {
		s.opts.Progress(s.progress())
	}
	switch {
	case s.gens >= s.maxGens:
		s.stop = s.maxGensStop
	case len(s.history) > Patience && best-s.history[len(s.history)-1-Patience] < MinGain:
		s.stop = "converged"
	case s.opts.Time > 0 && s.opts.Clock.Now().Sub(s.start) >= s.opts.Time:
		s.stop = "time"
	default:
		return nil
	}
	s.stopping = true
	return errStop
}

// check scores c on the held-out seeds and keeps it (s.mu held; released while the
// simulations run, which no evaluation waits for: the generation is complete). An error is
// ctx's: c is not kept.
func (s *search) check(c Candidate) error {
	var hold Score
	if len(s.opts.Holdout) > 0 {
		s.checking = true
		if s.opts.Progress != nil {
			s.opts.Progress(s.progress())
		}
		s.mu.Unlock()
		runs, err := s.pool.runAll(s.opts.Scenarios, s.opts.Holdout, c.Config, nil)
		s.mu.Lock()
		s.checking = false
		if err != nil {
			return err
		}
		hold = score(s.opts.Objective, s.opts.Scenarios, runs, s.holdGoodput, s.limits)
	}
	s.checked, s.checkedHoldout = c, hold
	s.checks++
	return nil
}
