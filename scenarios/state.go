package scenarios

import "fmt"

// ServiceState is the state of the downstream service, as the simulator, live mode, the
// reports and the dashboard give it (source.ServiceState is this type). The zero value,
// ServiceUnknown, is a service no tick has reported yet.
type ServiceState uint8

// The states of the service.
const (
	ServiceUnknown ServiceState = iota // no tick yet; written ""
	ServiceUp                          // serving (full capacity, or reduced by a fault)
	ServiceDown                        // an outage: connection refused until it ends
	ServiceCrashed                     // crashed under overload, until it restarts
	ServiceWarming                     // restarted, ramping up to full capacity
)

var serviceStates = [...]string{ServiceUnknown: "", ServiceUp: "UP", ServiceDown: "DOWN", ServiceCrashed: "CRASHED", ServiceWarming: "WARMING"}

// String returns the state as snapshots, timelines and the dashboard write it: "UP", "DOWN",
// "CRASHED" or "WARMING" ("" for ServiceUnknown).
func (s ServiceState) String() string {
	if int(s) < len(serviceStates) {
		return serviceStates[s]
	}
	return fmt.Sprintf("ServiceState(%d)", s)
}

// MarshalText writes the state as String does, so JSON documents hold "UP", not a number.
func (s ServiceState) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a state written by MarshalText.
func (s *ServiceState) UnmarshalText(b []byte) error {
	for i, name := range serviceStates {
		if name == string(b) {
			*s = ServiceState(i)
			return nil
		}
	}
	return fmt.Errorf("unknown service state %q", b)
}

// Serving reports whether the service takes attempts: UP or WARMING.
func (s ServiceState) Serving() bool { return s == ServiceUp || s == ServiceWarming }

// ServiceStates are the states a service reports, in order: UP, DOWN, CRASHED, WARMING.
func ServiceStates() []ServiceState {
	return []ServiceState{ServiceUp, ServiceDown, ServiceCrashed, ServiceWarming}
}
