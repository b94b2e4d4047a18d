-- The organizations of an email domain (GET /v1/email-domains/{emailDomain}/orgs), found by the domain instead of by
-- reading every organization's list of domains. Kept by triggers from organizations.email_domains (a JSON array of
-- strings); removed with the organization (foreign key).
CREATE TABLE organization_email_domains (
  domain TEXT NOT NULL,
  organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  PRIMARY KEY (domain, organization_id)
) WITHOUT ROWID;
CREATE INDEX organization_email_domains_organization ON organization_email_domains (organization_id);

INSERT OR IGNORE INTO organization_email_domains (domain, organization_id)
SELECT domain.value, organizations.id FROM organizations, json_each(organizations.email_domains) AS domain
WHERE domain.type = 'text';

CREATE TRIGGER organization_email_domains_added AFTER INSERT ON organizations
BEGIN
  INSERT OR IGNORE INTO organization_email_domains (domain, organization_id)
  SELECT value, NEW.id FROM json_each(NEW.email_domains) WHERE type = 'text';
END;

CREATE TRIGGER organization_email_domains_changed AFTER UPDATE OF email_domains ON organizations
BEGIN
  DELETE FROM organization_email_domains WHERE organization_id = OLD.id;
  INSERT OR IGNORE INTO organization_email_domains (domain, organization_id)
  SELECT value, NEW.id FROM json_each(NEW.email_domains) WHERE type = 'text';
END;
