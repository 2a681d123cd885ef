package membot

import "github.com/baton-dev/baton/tool"

// pipeTools are membot_pipe, membot_query and read_large_result.
func pipeTools() []tool.Tool { return []tool.Tool{Pipe, Query, ReadLargeResult} }
