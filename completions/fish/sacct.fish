complete -c sacct -s A -l accounts -d 'Use this comma separated list of accounts to select jobs to display. By default, all accounts are selected.' -r
complete -c sacct -s C -l constraints -d 'only jobs that requested these node features (comma separated)' -r
complete -c sacct -l delimiter -d 'ASCII characters used to separate the fields when specifying the -p or -P options. The default delimiter is a \'|\'. This options is ignored if -p or -P options are not specified.' -r
complete -c sacct -s E -l endtime -d 'Select jobs eligible before this time. If states are given with the -s option return jobs in this state before this period.' -r
complete -c sacct -s f -l file -d 'Read data from the specified file, rather than Slurm\'s current accounting log file. (Only appliciable when running the jobcomp/filetxt plugin.)' -r -F
complete -c sacct -s F -l flags -d 'only jobs with these scheduling flags (SchedSubmit, SchedMain, SchedBackfill, StartReceived)' -r
complete -c sacct -s g -l gid -l group -d 'Use this comma separated list of gids or group names to select jobs to display. By default, all groups are selected.' -r
complete -c sacct -l name -d 'Display jobs that have any of these name(s).' -r
complete -c sacct -s i -l nnodes -d 'Return jobs which ran on this many nodes (N = min[-max])' -r
complete -c sacct -s I -l ncpus -d 'Return jobs which ran on this many cpus (N = min[-max])' -r
complete -c sacct -s j -l jobs -d 'Format is <job(.step)>. Display information about this job or comma-separated list of jobs. The default is all jobs. Adding .step will display the specific job step of that job. (A step id of \'batch\' will display the information about the batch step.)' -r
complete -c sacct -s k -l timelimit-min -d 'Only send data about jobs with this timelimit. If used with timelimit_max this will be the minimum timelimit of the range. Default is no restriction.' -r
complete -c sacct -s K -l timelimit-max -d 'Ignored by itself, but if timelimit_min is set this will be the maximum timelimit of the range. Default is no restriction.' -r
complete -c sacct -s M -l clusters -l cluster -d 'Only send data about these clusters. Use "all" for all clusters.' -r
complete -c sacct -s N -l nodelist -d 'Display jobs that ran on any of these nodes, can be one or more using a ranged string.' -r
complete -c sacct -l units -d 'Display values in specified unit type. Takes precedence over --noconvert option.' -r
complete -c sacct -s o -l format -l fields -d 'Comma separated list of fields. (use "--helpformat" for a list of available fields).' -r
complete -c sacct -s q -l qos -d 'Only send data about jobs using these qos. Default is all.' -r
complete -c sacct -s r -l partition -d 'Comma separated list of partitions to select jobs and job steps from. The default is all partitions.' -r
complete -c sacct -l reason -d 'only jobs that were pending for one of these reasons (comma separated)' -r
complete -c sacct -s s -l state -d 'Select jobs based on their current state or the state they were in during the time period given: running (r), completed (cd), failed (f), timeout (to), resizing (rs), deadline (dl) and node_fail (nf).' -r
complete -c sacct -s S -l starttime -d 'Select jobs eligible after this time. Default is 00:00:00 of the current day, unless \'-s\' is set then the default is \'now\'.' -r
complete -c sacct -s u -l uid -l user -d 'Use this comma separated list of uids or user names to select jobs to display. By default, the running user\'s uid is used.' -r -f -a "(__fish_complete_users)"
complete -c sacct -s W -l wckeys -d 'Only send data about these wckeys. Default is all.' -r
complete -c sacct -l whole-hetjob -d 'If set to \'yes\' (or no argument), then information about all the heterogeneous components will be retrieved. If set to \'no\' only the specific filtered components will be retrieved. The default behavior without this option is that all components are retrieved only if filtering the leader component with --jobs.' -r
complete -c sacct -s x -l associations -d 'Only send data about these association id. Default is all.' -r
complete -c sacct -s a -l allusers -d 'Display jobs for all users. By default, only the current user\'s jobs are displayed. If ran by user root this is the default.'
complete -c sacct -s X -l allocations -d 'Only show statistics relevant to the job allocation itself, not taking steps into consideration.'
complete -c sacct -s b -l brief -d 'Equivalent to \'--format=jobstep,state,error\'.'
complete -c sacct -s B -l batch-script -d 'Print batch script of job. NOTE: AccountingStoreFlags=job_script is required for this NOTE: Requesting specific job(s) with \'-j\' is required for this.'
complete -c sacct -s c -l completion -d 'Use job completion instead of accounting data.'
complete -c sacct -s D -l duplicates -d 'If Slurm job ids are reset, some job numbers may appear more than once referring to different jobs. Without this option only the most recent jobs will be displayed.'
complete -c sacct -l federation -d 'Report jobs from federation if a member of a one.'
complete -c sacct -s e -l helpformat -l help-fields -d 'Print a list of fields that can be specified with the \'--format\' option'
complete -c sacct -l env-vars -d 'Print the environment to launch the batch script of job. NOTE: AccountingStoreFlags=job_env is required for this NOTE: Requesting specific job(s) with \'-j\' is required for this.'
complete -c sacct -s h -l help -d 'Print this description of use.'
complete -c sacct -l local -d 'Report information only about jobs on the local cluster. Overrides --federation.'
complete -c sacct -s l -l long -d 'Equivalent to specifying \'--format=jobid,jobidraw,jobname,partition,maxvmsize, maxvmsizenode,maxvmsizetask,avevmsize,maxrss, maxrssnode,maxrsstask,averss,maxpages, maxpagesnode,maxpagestask,avepages,mincpu, mincpunode,mincputask,avecpu,ntasks,alloccpus, elapsed,state,exitcode,avecpufreq,reqcpufreqmin, reqcpufreqmax,reqcpufreqgov,reqmem, consumedenergy,maxdiskread,maxdiskreadnode, maxdiskreadtask,avediskread,maxdiskwrite, maxdiskwritenode,maxdiskwritetask,avediskwrite, reqtres,alloctres, tresusageinave,tresusageinmax,tresusageinmaxn, tresusageinmaxt,tresusageinmin,tresusageinminn, tresusageinmint,tresusageintot,tresusageoutmax, tresusageoutmaxn,tresusageoutmaxt, tresusageoutave,tresusageouttot'
complete -c sacct -s L -l allclusters -d 'Display jobs ran on all clusters. By default, only jobs ran on the cluster from where sacct is called are displayed.'
complete -c sacct -l noconvert -d 'Don\'t convert units from their original type (e.g. 2048M won\'t be converted to 2G).'
complete -c sacct -s n -l noheader -d 'No header will be added to the beginning of output. The default is to print a header.'
complete -c sacct -s p -l parsable -d 'output will be \'|\' delimited with a \'|\' at the end'
complete -c sacct -s P -l parsable2 -d 'output will be \'|\' delimited without a \'|\' at the end'
complete -c sacct -s T -l truncate -d 'Truncate time. So if a job started before --starttime the start time would be truncated to --starttime. The same for end time and --endtime.'
complete -c sacct -l use-local-uid -d 'look user ids up locally by user name instead of using those stored in accounting'
complete -c sacct -s U -l usage -d 'Display brief usage message.'
complete -c sacct -s v -l verbose -d 'Primarily for debugging purposes, report the state of various variables during processing.'
complete -c sacct -s V -l version -d 'Print version.'
complete -c sacct -l json -d 'Produce JSON output'
complete -c sacct -l yaml -d 'Produce YAML output'
complete -c sacct -s t -d 'the same as -X (an old spelling)'
# bai-slurm: job ids and partition names come from `bai-slurm __complete`.
complete -c sacct -s r -l partition -x -a '(bai-slurm __complete partitions 2>/dev/null)'
complete -c sacct -s j -l jobs -x -a '(bai-slurm __complete jobs 2>/dev/null)'
