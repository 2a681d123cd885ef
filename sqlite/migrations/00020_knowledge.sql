-- +goose Up
-- Knowledge documents (issue 15, membot-operations.md §3): one row per
-- version of a logical path in a space (a project's or the global one,
-- project ''). A tombstone (deleted = 1) is a version too. Versions are
-- append-only; only prune deletes rows.
CREATE TABLE documents (
    rid           INTEGER PRIMARY KEY,
    scope         TEXT NOT NULL,
    project       TEXT NOT NULL DEFAULT '',
    path          TEXT NOT NULL,
    version_ms    INTEGER NOT NULL,
    deleted       INTEGER NOT NULL DEFAULT 0,
    content       TEXT NOT NULL DEFAULT '',
    content_type  TEXT NOT NULL DEFAULT '',
    size_bytes    INTEGER NOT NULL DEFAULT 0,
    sha256        TEXT NOT NULL DEFAULT '',
    source_path   TEXT NOT NULL DEFAULT '',
    source_sha256 TEXT NOT NULL DEFAULT '',
    change_note   TEXT NOT NULL DEFAULT '',
    created_by    TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    UNIQUE (scope, project, path, version_ms)
);

-- A version's chunks; search_text is what is indexed and embedded.
CREATE TABLE document_chunks (
    rid          INTEGER PRIMARY KEY,
    doc_rid      INTEGER NOT NULL REFERENCES documents(rid) ON DELETE CASCADE,
    ordinal      INTEGER NOT NULL,
    body         TEXT NOT NULL,
    context      TEXT NOT NULL DEFAULT '',
    search_text  TEXT NOT NULL,
    start_offset INTEGER NOT NULL,
    end_offset   INTEGER NOT NULL,
    UNIQUE (doc_rid, ordinal)
);

-- Porter stemming as membot's keyword side (§5.4); rowid = chunk rid.
-- The triggers keep it in step with document_chunks (chunks are never
-- updated, only inserted and deleted).
CREATE VIRTUAL TABLE document_chunks_fts USING fts5 (
    search_text,
    content = '', contentless_delete = 1,
    tokenize = 'porter unicode61 remove_diacritics 2'
);

-- +goose StatementBegin
CREATE TRIGGER document_chunks_index AFTER INSERT ON document_chunks BEGIN
    INSERT INTO document_chunks_fts (rowid, search_text) VALUES (new.rid, new.search_text);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER document_chunks_unindex AFTER DELETE ON document_chunks BEGIN
    DELETE FROM document_chunks_fts WHERE rowid = old.rid;
END;
-- +goose StatementEnd

-- One vector per chunk and model: little-endian float32, dims of them.
CREATE TABLE chunk_vectors (
    chunk_rid INTEGER NOT NULL REFERENCES document_chunks(rid) ON DELETE CASCADE,
    model     TEXT NOT NULL,
    dims      INTEGER NOT NULL,
    vec       BLOB NOT NULL,
    PRIMARY KEY (chunk_rid, model)
);

-- +goose Down
DROP TABLE chunk_vectors;
DROP TRIGGER document_chunks_unindex;
DROP TRIGGER document_chunks_index;
DROP TABLE document_chunks_fts;
DROP TABLE document_chunks;
DROP TABLE documents;
