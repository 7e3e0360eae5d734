-- The ledger is append-only: a correction is a new entry, never an edit of an old one. The
-- triggers ledger_entries_no_update_or_delete and ledger_entries_no_truncate run it (drizzle/0003).
CREATE OR REPLACE FUNCTION "ledger_entries_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'ledger_entries is append-only: record a correcting entry instead';
END;
$$;
