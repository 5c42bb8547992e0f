complete -c sinfo -s i -l iterate -d 'specify an iteration period' -r
complete -c sinfo -s M -l clusters -l cluster -d 'clusters to issue commands to. Implies --local. NOTE: SlurmDBD must be up.' -r
complete -c sinfo -s n -l nodes -d 'report on specific node(s)' -r
complete -c sinfo -s o -l format -d 'format specification' -r
complete -c sinfo -s O -l Format -d 'long format specification' -r
complete -c sinfo -s p -l partition -d 'report on specific partition' -r
complete -c sinfo -s S -l sort -d 'comma separated list of fields to sort on' -r
complete -c sinfo -s t -l states -d 'specify the what states of nodes to view' -r
complete -c sinfo -s a -l all -d 'show all partitions (including hidden and those not accessible)'
complete -c sinfo -s d -l dead -d 'show only non-responding nodes'
complete -c sinfo -s e -l exact -d 'group nodes only on exact match of configuration'
complete -c sinfo -l federation -d 'Report federated information if a member of one'
complete -c sinfo -l help -d 'show this help message'
complete -c sinfo -l hide -d 'do not show hidden or non-accessible partitions'
complete -c sinfo -l local -d 'show only local cluster in a federation. Overrides --federation.'
complete -c sinfo -s l -l long -d 'long output - displays more information'
complete -c sinfo -l noconvert -d 'don\'t convert units from their original type (e.g. 2048M won\'t be converted to 2G).'
complete -c sinfo -s h -l noheader -d 'no headers on output'
complete -c sinfo -s N -l Node -d 'Node-centric format'
complete -c sinfo -s r -l responding -d 'report only responding nodes'
complete -c sinfo -s R -l list-reasons -d 'list reason nodes are down or drained'
complete -c sinfo -s s -l summarize -d 'report state summary only'
complete -c sinfo -s T -l reservation -d 'show only reservation information'
complete -c sinfo -l usage -d 'display brief usage message'
complete -c sinfo -s v -l verbose -d 'verbosity level'
complete -c sinfo -s V -l version -d 'output version information and exit'
complete -c sinfo -l json -d 'Produce JSON output'
complete -c sinfo -l yaml -d 'Produce YAML output'
# bai-slurm: job ids and partition names come from `bai-slurm __complete`.
complete -c sinfo -s p -l partition -x -a '(bai-slurm __complete partitions 2>/dev/null)'
