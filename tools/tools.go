// Package tools lists every tool baton ships. Adding a tool is one file in
// its area's package plus one line here.
package tools

import (
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/audit"
	"github.com/baton-dev/baton/tools/beads"
	"github.com/baton-dev/baton/tools/capabilities"
	"github.com/baton-dev/baton/tools/claims"
	"github.com/baton-dev/baton/tools/issues"
	"github.com/baton-dev/baton/tools/membot"
	"github.com/baton-dev/baton/tools/messaging"
	"github.com/baton-dev/baton/tools/phases"
	"github.com/baton-dev/baton/tools/pipeline"
	"github.com/baton-dev/baton/tools/reservations"
	"github.com/baton-dev/baton/tools/review"
	"github.com/baton-dev/baton/tools/skills"
	"github.com/baton-dev/baton/tools/system"
	"github.com/baton-dev/baton/tools/tasks"
	"github.com/baton-dev/baton/tools/vault"
	"github.com/baton-dev/baton/tools/work"
)

// All returns every built-in tool, in the order clients list them.
func All() []tool.Tool {
	all := []tool.Tool{
		system.Ping,
		system.Health,
		tasks.Create,
		tasks.Get,
		tasks.Update,
		tasks.List,
		tasks.NextActions,
		issues.GetIssue,
		issues.GetIssueStatus,
		issues.UpdateIssueStatus,
		issues.AddFinding,
		issues.AddLearning,
		issues.AddComment,
		issues.CreateIssue,
		issues.CreateSubtask,
		issues.ListIssues,
		issues.SearchLearnings,
		issues.MoveIssue,
		issues.VerifyWorkspace,
		issues.RecordTestHealth,
		issues.RecordCoverage,
		issues.UpdateMemory,
		issues.QueryRunEvents,
		issues.AddDependency,
		issues.RemoveDependency,
		review.CreatePR,
		review.ApprovePR,
		review.RejectPR,
		pipeline.ConfigureProject,
		phases.CompletePhase,
		phases.ApprovePhase,
		phases.RejectPhase,
		beads.CreateBead,
		beads.UpdateBead,
		beads.CloseBead,
		beads.ListBeads,
		beads.ShowBead,
		claims.ClaimItem,
		claims.ClaimNext,
		claims.RenewClaim,
		claims.ReleaseClaim,
		claims.ForceReleaseClaim,
		reservations.FileReservationPaths,
		reservations.RenewFileReservations,
		reservations.ReleaseFileReservations,
		reservations.ForceReleaseFileReservation,
		reservations.ListFileReservations,
		audit.ThoughtRecord,
		audit.ThoughtRecordList,
		audit.AuditSessionStart,
		audit.AuditVerifyChain,
		audit.MerkleFinalize,
		audit.MerkleRoot,
		audit.MerkleProof,
		skills.SkillList,
		skills.SkillGet,
		messaging.SendMessage,
		messaging.ReadMessages,
		messaging.ListThreads,
		messaging.MarkRead,
		messaging.WaitForMessages,
		messaging.AskOwner,
		messaging.SearchMessages,
		messaging.SetStatus,
		messaging.ReportProgress,
		messaging.Announce,
		messaging.CreateProposal,
		messaging.ListProposals,
		messaging.DecideProposal,
		messaging.ListAgents,
		messaging.GetProjectState,
		work.CompleteTask,
		work.FailTask,
		work.WaitTask,
		capabilities.CapabilitiesRefresh,
	}
	all = append(all, vault.All()...)
	return append(all, membot.All()...)
}

// Registry returns a registry of every built-in tool.
func Registry() *tool.Registry { return tool.NewRegistry(All()...) }

// The JSON tools/list sends for each tool's schemas comes from wire_gen.go,
// generated from the live schemas; TestWireFresh fails, naming this
// command, when a definition changed since:
//
//go:generate go run gen_wire.go

// init gives every tool its precomputed schema JSON, so that offering a
// tool builds and marshals none of its schemas. A tool missing from
// wire_gen.go (TestWireFresh says so) is marshalled as before.
func init() {
	for _, t := range All() {
		if w, ok := wire[t.Spec().Name]; ok {
			tool.UseWire(t, w)
		}
	}
}
