"""The trust report: primitives (:mod:`~medvigil.report.render`) and the document over every suite
(:mod:`~medvigil.report.document`); each suite's own tables live in its room."""
