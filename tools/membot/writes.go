package membot

import "github.com/baton-dev/baton/tool"

// writeTools are the membot operations that write: add, write, move,
// remove, refresh, prune, and the wrappers edit and copy; then
// membot_delete, membot_remove's deprecated alias, last.
func writeTools() []tool.Tool {
	return []tool.Tool{Add, Write, Move, Remove, Refresh, Prune, Edit, Copy, Delete}
}
