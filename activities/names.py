"""Activity names in one place, so workflows can call activities without importing
their modules (SQLAlchemy, jinja2 and smtplib stay out of the workflow sandbox)."""

RECORD_APPLICATION = "record_application"
RECORD_EVENT = "record_event"
SEND_NOTICE = "send_notice"
SEND_PROJECT_NOTICE = "send_project_notice"
RECORD_PROJECT = "record_project"
ADD_CLOSURE_TO_CLOCK = "add_closure_to_clock"
ADD_CLOSURE_TO_PERMIT_CLOCK = "add_closure_to_permit_clock"
RECORD_PERMIT_CLOCK = "record_permit_clock"
RECORD_PERMIT_EVENT = "record_permit_event"
SEND_PERMIT_NOTICE = "send_permit_notice"
DISPATCH_WEBHOOKS = "dispatch_webhooks"
