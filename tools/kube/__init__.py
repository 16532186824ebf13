"""Read-only Kubernetes access: kubeconfig loading, a GET-only list/log client, and a
responder that answers the same requests from recorded objects (replay and tests)."""
