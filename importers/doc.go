// Package importers turns the task files of other tools into baton work
// items: beads' JSON Lines (bd export, or the .beads/issues.jsonl of older
// versions) and Taskmaster's tasks.json (flat or tagged).
//
// Importing is two steps. Beads or Taskmaster reads a file into a Plan: a
// neutral list of items to create, with their parents, dependencies and
// comments, and a Report of what mapped to what and what was left out and
// why. Apply then creates the plan in one transaction of a store, through
// the store's own CreateItem, AddDependency and AddComment, with one
// action in the audit log for the whole import:
//
//	plan, err := importers.Parse("beads", f)     // or importers.Beads(f)
//	rep, err := importers.Apply(ctx, store, "web", plan, importers.ApplyOptions{By: "user"})
//
// Every imported item carries a provenance label, beads:<id> or
// taskmaster:<id> (taskmaster:<tag>/<id> outside Taskmaster's master tag),
// so running the same import again finds what it created and creates
// nothing twice; the report lists those items as already imported. A dry
// run does everything in the transaction, then rolls it back: its report
// is the real one, baton ids included.
//
// # Beads
//
//	status        baton        note
//	open          todo         as create_bead: open and ready to work
//	in_progress   in_progress
//	hooked        in_progress  on an agent's hook: being worked on
//	blocked       blocked      blocked_reason "blocked in beads"
//	deferred      backlog      put on ice: not offered as work
//	pinned        backlog      a persistent marker, not work; label "pinned"
//	closed        done         close_reason kept, progress 100
//	tombstone     -            skipped: deleted
//	(other)       backlog      custom statuses; the report names them
//
// Priorities are beads' own 0-4 scale, baton's canonical one (0 critical
// ... 4 backlog); a missing priority is 0, as beads reads it, and values
// outside 0-4 are clamped. Kinds: bug, feature, task, epic and chore as
// they are; molecule and convoy become epics and gate and merge-request
// tasks, each labelled beads-type:<type>; message, event, agent and role
// beads are skipped (they are not work), as are templates and ephemeral
// wisps.
//
// Dependencies: blocks (and conditional-blocks and waits-for, which
// baton approximates) become baton dependencies; parent-child sets the
// child's parent; every other link type (related, discovered-from,
// duplicates, ...) holds nothing back in baton and is kept as a line of
// the description's Links section. Design, acceptance criteria and notes
// are appended to the description under headings; labels, assignee,
// comments (with their authors and times), created_by, created_at,
// updated_at and estimated_minutes carry over.
//
// # Taskmaster
//
//	status        baton
//	pending       todo
//	in-progress   in_progress
//	review        review
//	blocked       blocked
//	deferred      backlog
//	done          done (also "completed")
//	cancelled     cancelled
//	(other)       backlog
//
//	priority      baton
//	critical      0
//	high          1
//	medium        2 (also when missing; a subtask without one takes its task's)
//	low           3
//
// Every task is a baton task; subtasks are its children. Details, test
// strategy and acceptance criteria are appended to the description under
// headings. A task's dependency N is task N and "N.M" is subtask M of task
// N; in a subtask, a number N is its sibling N when the task has one
// (Taskmaster's own reading), else task N.
//
// # Parents
//
// A parent that is not an epic and is not finished, with a sub-task that
// is not finished, is blocked by its sub-tasks exactly as create_subtask
// leaves it: status blocked, its own status kept to return to when the
// last sub-task is done. An epic keeps its status; its open children hold
// it back from ready work anyway.
//
// docs/import.md has the full tables, the limits and an example report.
package importers
