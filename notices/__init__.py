"""Notices: the letters Clearance sends and the words they (and the pages) use.

A layer between the faces (activities, reports, web) above and the rules and models
below; it imports nothing from activities, workflows, actions, web, reports, cli or
stack (tests/notices/test_layers.py).

- vocabulary: every label a letter or page prints (categories, statuses, events,
  outcomes, windows, condition statuses, permit statuses and consequences, milestones
  and departments); milestone labels and order come from the rules' milestone loader.
- filters: the Jinja filters the notice templates use.
- render: the NoticeRenderer (one compiled template per name), RenderedNotice, errors.
- shot_clock, project, permit_clock: what each family's letters say (context, subject).

Templates stay in templates/notices/.
"""
