package baton

// Source says through which door a call came in.
type Source string

// Call sources.
const (
	SourceStdio Source = "stdio"
	SourceHTTP  Source = "http"
	SourceCLI   Source = "cli"
	SourceWeb   Source = "web"
	SourceTest  Source = "test"
)

// Principal is who a call runs as. The server resolves it from the
// transport (process flags, bearer token, operator login); tool arguments
// never set it.
type Principal struct {
	Agent         string // agent id, e.g. "agent-alice"
	Profile       string // worker, researcher, judge, ...
	AgentType     string
	Project       string // default project slug for the session
	IssueID       string // bound work item, if any
	WorktreePath  string
	Source        Source
	SchedulerMode bool
	// Preset chooses the session's vocabulary (core, symphony, colibri,
	// adjutant, botholomew, full); empty means the default for the
	// session (tool.DefaultPreset).
	Preset string
	// ScopeFile is the --tool-scope-file of the session: a JSON array of
	// tool names that, when set, is the whole of its tools.
	ScopeFile string
}
