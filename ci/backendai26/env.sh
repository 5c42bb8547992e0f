# Source me: the Backend.AI 26.9 test stack's endpoint, keys and names, as ci/backendai26/up.sh
# sets them up (the 26.9 counterpart of ci/backendai/env.sh; same variable names, so the same
# test binaries run against either stack).
#   . ci/backendai26/env.sh
# BACKEND_* hold the NORMAL user's keypair (user@lablup.com), BAI_ADMIN_* the superadmin's:
# the public example keys of Backend.AI's fixtures. The stack listens on 127.0.0.1 only.
export BAI_STATE=${BAI26_STATE:-/tmp/bai-stack-26}
export BAI_STACK="Backend.AI 26.9.6"
export BACKEND_ENDPOINT=http://127.0.0.1:8091
export BACKEND_ACCESS_KEY=AKIANABBDUSEREXAMPLE
export BACKEND_SECRET_KEY=C8qnIo29EZvXkPK_MXcuAakYTy4NYrxwmCEyNPlf
export BACKEND_DOMAIN=default
export BACKEND_GROUP=default
export BAI_ADMIN_ACCESS_KEY=AKIAIOSFODNN7EXAMPLE
export BAI_ADMIN_SECRET_KEY='wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'
export BAI_IMAGE=local/stable/bai-batch:bookworm   # ci/backendai/image/Dockerfile, in this stack's own dockerd
export BAI_SCALING_GROUP=default                   # the one resource group (partition)
