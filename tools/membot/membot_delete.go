package membot

// Delete is membot_delete, the name membot_remove had up to membot 0.15.3
// and in Botholomew's first membot releases (§1): prompts written for them
// call it, so it is accepted and does exactly what membot_remove does. It
// is an alias: callable by every session that may call membot_remove, and
// left out of tools/list, so the list does not grow for it.
var Delete = removeTool("membot_delete", "Deprecated alias of membot_remove; use membot_remove.", nil, "membot_remove")
