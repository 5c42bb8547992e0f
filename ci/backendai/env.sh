# Source me: the test stack's endpoint, keys and names, as ci/backendai/up.sh sets them up.
#   . ci/backendai/env.sh
# BACKEND_* are the official SDK's variable names (bai-slurm reads the same ones); they hold
# the NORMAL user's keypair (user@lablup.com). The superadmin's keypair (admin@lablup.com)
# is in BAI_ADMIN_*. These are the public example keys of Backend.AI's fixtures: the stack
# listens on 127.0.0.1 only.
export BAI_STATE=${BAI_STATE:-/tmp/bai-stack}
export BACKEND_ENDPOINT=http://127.0.0.1:8081
export BACKEND_ACCESS_KEY=AKIANABBDUSEREXAMPLE
export BACKEND_SECRET_KEY=C8qnIo29EZvXkPK_MXcuAakYTy4NYrxwmCEyNPlf
export BACKEND_DOMAIN=default
export BACKEND_GROUP=default
export BAI_ADMIN_ACCESS_KEY=AKIAIOSFODNN7EXAMPLE
export BAI_ADMIN_SECRET_KEY='wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'
export BAI_IMAGE=${BAI_IMAGE:-local/bai-batch:bookworm}   # the job image (image/Dockerfile)
export BAI_SCALING_GROUP=default                          # the one resource group (partition)
