-- +goose Up
-- claim_fences remembers, per item and agent, a lease that lapsed: the
-- claim row itself goes (reaped, taken over, ended by another's update),
-- but its holder may still believe it holds the item. Until that agent
-- claims the item again its updates of the item are ERR_CLAIMED, whatever
-- happened to the claim row. token and expires_at are the lapsed claim's.
CREATE TABLE claim_fences (
    item_id    TEXT NOT NULL REFERENCES items(id) ON DELETE CASCADE ON UPDATE CASCADE,
    holder     TEXT NOT NULL,
    token      INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (item_id, holder)
);

-- +goose Down
DROP TABLE claim_fences;
