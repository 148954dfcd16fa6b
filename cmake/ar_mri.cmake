# cmake -DAR=<ar> -DMRI=<script> -P ar_mri.cmake: runs `ar -M < script` (snarkd_static_bundle).
execute_process(COMMAND ${AR} -M INPUT_FILE ${MRI} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ar -M ${MRI} failed: ${rc}")
endif()
