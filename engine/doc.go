// Package engine is the CORTEX retry engine: one Composite Pressure Score (CPS), computed from
// five signals, drives every retry decision. It uses the standard library only.
package engine
