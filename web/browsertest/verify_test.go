package browsertest

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestVerifyButton: the audit page's Verify button posts with the token
// the login handed over (never written in a page) and shows the result.
func TestVerifyButton(t *testing.T) {
	fx := setup(t)
	bot := fx.newAgent(t, "agent-audited")
	bot.call("send_message", map[string]any{"to": "user", "body": "something to verify"})
	tb := fx.loggedInTab(t)
	if st := tb.open("/audit"); st != 200 {
		t.Fatalf("GET /audit: %d", st)
	}
	tb.do(chromedp.Click(chromedp.CSS(`form[data-post="/audit/verify"] button`)))
	tb.waitJS(`!!document.querySelector("#verify-out .badge.ok")`, 10*time.Second, "the verification's result")
	tb.shot("audit-verified")
}
