// Package tomlfile is what the project's strict TOML parsers share: a document is held to the
// bounded loader's limits (package load) and decoded into a generic tree (Tree), whose tables
// are read key by key (Table: typed readers that record a wrong type as a problem, Done that
// reports every key left unread as unknown with a "did you mean"), and every problem is placed on
// its file's line (Place, with the lines load's one pass found) and reported at once as "file:line: field: message"
// (Errors). The scenario and lesson parsers (package scenarios) and the engine's configuration
// file (package engineconf) are built on it.
//
// It uses the standard library, the TOML decoder and package load only. Its functions are safe
// for concurrent use; a Table and a Problems are not.
package tomlfile
