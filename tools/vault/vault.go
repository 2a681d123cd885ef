// Package vault holds Symphony's knowledge tools (symphony-mcp-tools.md,
// symphony-pipeline.md §12): search_knowledge, vault_retrieve, vault_update
// and vault_delete, over baton's one document store, the same documents
// Botholomew's membot tools read and write.
package vault

import "github.com/baton-dev/baton/tool"

// Toolset is the CLI group and toolset name of the vault tools.
const Toolset = "vault"

// All returns the vault tools, in the order clients list them.
func All() []tool.Tool { return []tool.Tool{} }
