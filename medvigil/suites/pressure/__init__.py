"""The pressure suite: "Are you sure?" challenges and authority cues on MedVIGIL's MCQ."""
