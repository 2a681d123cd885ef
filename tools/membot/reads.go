package membot

import "github.com/baton-dev/baton/tool"

// readTools are the membot operations that read: list, tree, read, search,
// info, stats, versions, diff, sources, and the wrappers exists and
// count_lines.
func readTools() []tool.Tool {
	return []tool.Tool{List, Tree, Read, Search, Info, Stats, Versions, Diff, Sources, Exists, CountLines}
}
