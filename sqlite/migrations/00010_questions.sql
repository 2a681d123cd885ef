-- +goose Up
-- question is 'open' for a question to the user until the user replies in
-- its thread ('answered'); '' for every other message.
ALTER TABLE messages ADD COLUMN question TEXT NOT NULL DEFAULT '';
CREATE INDEX messages_open_questions ON messages (thread_id) WHERE question = 'open';

-- +goose Down
DROP INDEX messages_open_questions;
ALTER TABLE messages DROP COLUMN question;
