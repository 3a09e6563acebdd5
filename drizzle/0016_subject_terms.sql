-- term is COLLATE "C" (byte order), so its primary key serves a prefix as a range in any database collation.
CREATE TABLE IF NOT EXISTS "subject_term" (
	"term" text COLLATE "C" NOT NULL,
	"subject" text NOT NULL,
	"field" text NOT NULL,
	"value" text NOT NULL,
	CONSTRAINT "subject_term_term_subject_pk" PRIMARY KEY("term","subject")
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "subject_term_subject_idx" ON "subject_term" USING btree ("subject");
