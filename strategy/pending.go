package strategy

// TEMPORARY: placeholders until each strategy's file lands.

func newCortexFromEnv(Env) (Strategy, error) { return nil, errNotYet }
