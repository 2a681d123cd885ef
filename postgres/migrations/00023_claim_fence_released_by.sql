-- +goose Up
-- released_by names who ended a live claim in its holder's place (an
-- operator's force_release_claim); '' for a lease that lapsed. The holder's
-- refused update then says who released its claim instead of calling it a
-- lapse, and expires_at is when the claim was released.
ALTER TABLE claim_fences ADD COLUMN released_by TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE claim_fences DROP COLUMN released_by;
