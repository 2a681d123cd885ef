package membot

import "github.com/baton-dev/baton/tool"

// writeTools are the membot operations that write: add, write, move,
// remove, refresh, prune, and the wrappers edit and copy.
func writeTools() []tool.Tool { return []tool.Tool{} }
