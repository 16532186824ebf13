"""Read-only AWS access: one guarded boto3 session, lazy clients, recording and replay."""
